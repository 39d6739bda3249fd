"""The checkable bounds of the source documents, as functions of their parameters.

Every function is plain ``jnp`` arithmetic, so bounds can be evaluated on traced values and
vmapped alongside the learners they bound. Each function cites the book section, lecture or slide
it comes from (UML, SS10, Balcan, COMP0078; the sources are listed in ``docs/algorithms.md``).
Concrete arguments outside the range the theorem assumes (a margin ``<= 0``, ``delta`` outside (0, 1),
a count that is not a positive integer, NaN, inf) raise a ``ValueError`` naming the argument.
"""

from jaxlearn.theory._batch import hard_svm_bound
from jaxlearn.theory._batch import knn_bound
from jaxlearn.theory._batch import multiclass_perceptron_bound
from jaxlearn.theory._batch import multiclass_sgd_steps
from jaxlearn.theory._batch import multiclass_svm_bound
from jaxlearn.theory._batch import one_nn_bound
from jaxlearn.theory._batch import sgd_convex_bound
from jaxlearn.theory._batch import sgd_strongly_convex_bound
from jaxlearn.theory._batch import soft_svm_bound
from jaxlearn.theory._batch import stability_bound
from jaxlearn.theory._batch import tree_mdl_bound
from jaxlearn.theory._compression import compression_bound
from jaxlearn.theory._compression import compression_train_bound
from jaxlearn.theory._compression import holdout_bound
from jaxlearn.theory._compression import inefficient_perceptron_bound
from jaxlearn.theory._compression import perceptron_compression_bound
from jaxlearn.theory._compression import rectangle_compression_bound
from jaxlearn.theory._nearest import LabelledGrid
from jaxlearn.theory._nearest import curse_of_dimensionality_sample_size
from jaxlearn.theory._nearest import nn_lower_bound_grid
from jaxlearn.theory._nearest import nn_lower_bound_sample_size
from jaxlearn.theory._nearest import sample_labelled_grid
from jaxlearn.theory._online import agnostic_regret_bound
from jaxlearn.theory._online import conjunction_bound
from jaxlearn.theory._online import consistent_bound
from jaxlearn.theory._online import decision_list_bound
from jaxlearn.theory._online import exponential_weights_bound
from jaxlearn.theory._online import halfspace_margin
from jaxlearn.theory._online import halving_bound
from jaxlearn.theory._online import hedge_regret_bound
from jaxlearn.theory._online import margin
from jaxlearn.theory._online import margin_perceptron_bound
from jaxlearn.theory._online import ogd_pathwise_bound
from jaxlearn.theory._online import ogd_regret_bound
from jaxlearn.theory._online import perceptron_mistake_bound
from jaxlearn.theory._online import perceptron_nonseparable_bound
from jaxlearn.theory._online import radius
from jaxlearn.theory._online import rwm_regret_bound
from jaxlearn.theory._online import total_deviation
from jaxlearn.theory._online import weighted_average_regret_bound
from jaxlearn.theory._online import weighted_majority_bound
from jaxlearn.theory._online import winnow_mistake_bound
from jaxlearn.theory._pac import epsilon_net_sample_size
from jaxlearn.theory._pac import interval_erm
from jaxlearn.theory._pac import is_interval_epsilon_net
from jaxlearn.theory._schemes import HalfspaceCompression
from jaxlearn.theory._schemes import Rectangle
from jaxlearn.theory._schemes import halfspace_compress
from jaxlearn.theory._schemes import halfspace_reconstruct
from jaxlearn.theory._schemes import perceptron_compress
from jaxlearn.theory._schemes import perceptron_reconstruct
from jaxlearn.theory._schemes import rectangle_compress
from jaxlearn.theory._schemes import rectangle_predict
from jaxlearn.theory._schemes import rectangle_reconstruct
from jaxlearn.theory._stability import rlm_distance_bound
from jaxlearn.theory._stability import rlm_oracle_bound
from jaxlearn.theory._stability import rlm_tuned_lam
from jaxlearn.theory._stability import stable_erm_bound
from jaxlearn.theory._vc import growth_function
from jaxlearn.theory._vc import sauer_bound
from jaxlearn.theory._vc import sign_network_vc_bound

__all__ = [
    "HalfspaceCompression",
    "LabelledGrid",
    "Rectangle",
    "agnostic_regret_bound",
    "compression_bound",
    "compression_train_bound",
    "conjunction_bound",
    "consistent_bound",
    "curse_of_dimensionality_sample_size",
    "decision_list_bound",
    "epsilon_net_sample_size",
    "exponential_weights_bound",
    "growth_function",
    "halfspace_compress",
    "halfspace_margin",
    "halfspace_reconstruct",
    "halving_bound",
    "hard_svm_bound",
    "hedge_regret_bound",
    "holdout_bound",
    "inefficient_perceptron_bound",
    "interval_erm",
    "is_interval_epsilon_net",
    "knn_bound",
    "margin",
    "margin_perceptron_bound",
    "multiclass_perceptron_bound",
    "multiclass_sgd_steps",
    "multiclass_svm_bound",
    "nn_lower_bound_grid",
    "nn_lower_bound_sample_size",
    "ogd_pathwise_bound",
    "ogd_regret_bound",
    "one_nn_bound",
    "perceptron_compress",
    "perceptron_compression_bound",
    "perceptron_mistake_bound",
    "perceptron_nonseparable_bound",
    "perceptron_reconstruct",
    "radius",
    "rectangle_compress",
    "rectangle_compression_bound",
    "rectangle_predict",
    "rectangle_reconstruct",
    "rlm_distance_bound",
    "rlm_oracle_bound",
    "rlm_tuned_lam",
    "rwm_regret_bound",
    "sample_labelled_grid",
    "sauer_bound",
    "sgd_convex_bound",
    "sgd_strongly_convex_bound",
    "sign_network_vc_bound",
    "soft_svm_bound",
    "stability_bound",
    "stable_erm_bound",
    "total_deviation",
    "tree_mdl_bound",
    "weighted_average_regret_bound",
    "weighted_majority_bound",
    "winnow_mistake_bound",
]
