"""Save and load states, params, learners and estimators: arrays plus JSON, never pickle.

:func:`save` writes any jaxlearn pytree (an online state, batch params, a ``TrainHistory``, a learner
built by a factory, tuples/lists/dicts of these) or a fitted :mod:`jaxlearn.sklearn` estimator to one
file; :func:`load` gives it back with the same types (``NamedTuple`` classes, ``Learner`` factories,
estimator classes), dtypes and shapes, bit for bit. Loading never executes code from the file (as
skops, unlike pickle): a type name is resolved only to a ``NamedTuple`` class, a
``core.learner_factory`` factory or a function *defined in a* ``jaxlearn.*`` *module*, or to an
estimator listed in ``jaxlearn.sklearn.__all__``; anything else is a ``ValueError`` (your own
``NamedTuple`` or function is restored from ``like=``, never by name).

**Format, version 1.** An uncompressed NumPy ``.npz`` archive (readable with
``numpy.load(path, allow_pickle=False)``) with the members

- ``__jaxlearn__``: a ``uint8`` array, the UTF-8 bytes of a JSON object ``{"format": "jaxlearn.io",
  "version": 1, "jaxlearn": <version>, "tree": <node>, "leaves": [<leaf>, ...]}``;
- ``leaf_0`` ... ``leaf_{N-1}``: the arrays, leaf ``i`` described by ``leaves[i]`` =
  ``{"dtype", "shape", "kind"}`` with ``kind`` one of ``"jax"`` (a ``jax.Array``), ``"numpy"`` (an
  ``ndarray``), ``"scalar"`` (a NumPy scalar). ``dtype`` is NumPy's ``dtype.str`` (``"<f4"``) for
  NumPy's own types; the extended types of JAX (``bfloat16``, ``float8_*``) are named and stored as
  unsigned integers of the same width. A typed PRNG key array has ``dtype`` ``"key"``, its
  ``jax.random.key_data`` is the stored array and ``key_impl`` names the implementation.

A ``<node>`` is a JSON object with a ``"type"``: ``none``; ``bool``, ``int``, ``str`` (``value``);
``float`` (``value``: ``float.hex``, exact); ``array`` (``leaf``: its index); ``tuple``, ``list``
(``items``); ``dict`` (``keys``, ``values``: nodes); ``namedtuple`` (``class``: ``"module:qualname"``,
``fields``, ``items``); ``learner`` (``kind``: ``Learner``/``BatchLearner``/``Transform``, ``factory``:
``"module:qualname"``, ``args``: the factory's arguments by name, numeric ones and structural ones);
``function`` (``ref``); ``closure`` (a function a cached jaxlearn maker builds, such as the polynomial
kernel's: ``maker``, the function's ``name``, the maker's ``args``); ``partial`` (a
``jax.tree_util.Partial``, as kernels and projections are: ``func``, ``args``, ``keywords``);
``object_array`` (``shape``, ``items``); ``estimator`` (``class``, ``params``:
``get_params(deep=False)``, ``fitted``: the attributes ending in ``_``).

A learner is saved as its factory call and rebuilt by calling the factory again. What cannot be named
(a lambda, a local function, an optax optimiser, a learner built by hand) makes :func:`save` raise a
``ValueError`` naming where it is. The file is written atomically: a temporary file in the same
directory, ``fsync``, then ``os.replace``; a failed save leaves no partial file. A float64
``jax.Array`` loads only with ``jax_enable_x64`` on (a ``ValueError`` otherwise, never a silent cast).
"""

from jaxlearn.io._common import FORMAT
from jaxlearn.io._common import VERSION
from jaxlearn.io._load import load
from jaxlearn.io._save import save

__all__ = ["FORMAT", "VERSION", "load", "save"]
