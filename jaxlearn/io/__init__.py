"""Save and load states, params, learners and estimators: arrays plus JSON, never pickle.

:func:`save` writes any jaxlearn pytree (an online state, batch params, a ``TrainHistory``, a learner
built by a factory, tuples/lists/dicts of these) or a fitted :mod:`jaxlearn.sklearn` estimator to one
file; :func:`load` gives it back with the same types (``NamedTuple`` classes, ``Learner`` factories,
estimator classes), dtypes and shapes, bit for bit.

**A file is untrusted input** (as with skops, unlike pickle). Loading never runs code named by the
file and its cost is bounded by the file:

- a name in the file resolves only to an entry of jaxlearn's registry (:func:`registered` lists
  them): the learner factories, the data ``NamedTuple`` s the families return (states, params,
  traces, histories), the pure functions a learner may hold (kernels, losses, projections,
  activations, feature maps) and the cached makers of such functions; an estimator only to a class
  of ``jaxlearn.sklearn.__all__``. Never ``Learner``, ``BatchLearner`` or ``Transform`` built by
  hand, never a private helper, never another library's object. A new learner joins the registry
  where it is defined (its ``core.learner_factory`` decorator; ``core.loadable`` on its state or
  params class and on any function it may hold);
- a function stands only where the factory's signature takes one (its ``functions=``
  declaration: ``kernel``, ``loss``, ``projection``, ``feature_map``, ``activation``), a learner
  only where it takes learners (a reduction's ``binary``, a pipeline's steps), an estimator only
  as an estimator's parameter; fitted attributes and ``NamedTuple`` fields are data;
- every factory argument passes the factory's own range checks before the factory runs, and the
  arguments that size what a factory computes at once are capped (``load_caps=``: SOA's and the
  agnostic experts' ``max_version_spaces`` at 2^17 and ``max_experts`` at 2^16, the conjunction's
  and the decision list's ``n`` at 2^20); ``like=`` with a bigger learner lifts a cap to its value;
- only a regular file is opened (a FIFO, a device or a directory is refused without blocking), its
  members must be stored (a compressed member is refused: jaxlearn writes none), their declared
  sizes must add up to no more than the file, and each array's ``.npy`` header must match the
  metadata before its bytes are read;
- every failure is a :class:`FileError` (a ``ValueError``) naming the file and the node.

Your own ``NamedTuple`` s and functions are restored from ``like=``, never by name.

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
directory, ``fsync``, then ``os.replace``; a failed save leaves no partial file; a symlink's target is
replaced, a read-only file is not (see :func:`save`). A float64 ``jax.Array`` loads only with
``jax_enable_x64`` on (a :class:`FileError` otherwise, never a silent cast).
"""

from jaxlearn._registry import registered
from jaxlearn.io._common import FORMAT
from jaxlearn.io._common import VERSION
from jaxlearn.io._common import FileError
from jaxlearn.io._load import load
from jaxlearn.io._save import save

__all__ = ["FORMAT", "VERSION", "FileError", "load", "registered", "save"]
