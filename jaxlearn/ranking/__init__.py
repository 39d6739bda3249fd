"""Ranking: Kendall-tau and NDCG losses, linear ranking SVMs, bipartite measures and their SVM."""

from jaxlearn.ranking._bipartite import Counts
from jaxlearn.ranking._bipartite import balanced_accuracy
from jaxlearn.ranking._bipartite import bipartite_hinge
from jaxlearn.ranking._bipartite import bipartite_loss_augmented
from jaxlearn.ranking._bipartite import confusion_counts
from jaxlearn.ranking._bipartite import f_beta
from jaxlearn.ranking._bipartite import precision
from jaxlearn.ranking._bipartite import precision_at_k
from jaxlearn.ranking._bipartite import recall
from jaxlearn.ranking._bipartite import recall_at_k
from jaxlearn.ranking._bipartite import specificity
from jaxlearn.ranking._bipartite import top_k_counts
from jaxlearn.ranking._losses import discount
from jaxlearn.ranking._losses import kendall_tau_hinge
from jaxlearn.ranking._losses import kendall_tau_loss
from jaxlearn.ranking._losses import ndcg_cost_matrix
from jaxlearn.ranking._losses import ndcg_hinge
from jaxlearn.ranking._losses import ndcg_loss
from jaxlearn.ranking._losses import ndcg_loss_augmented
from jaxlearn.ranking._losses import ndcg_surrogate_value
from jaxlearn.ranking._losses import permutation
from jaxlearn.ranking._losses import zero_one_ranking
from jaxlearn.ranking._svm import RankingSVMParams
from jaxlearn.ranking._svm import bipartite_svm
from jaxlearn.ranking._svm import ranking_svm

__all__ = [
    "Counts",
    "RankingSVMParams",
    "balanced_accuracy",
    "bipartite_hinge",
    "bipartite_loss_augmented",
    "bipartite_svm",
    "confusion_counts",
    "discount",
    "f_beta",
    "kendall_tau_hinge",
    "kendall_tau_loss",
    "ndcg_cost_matrix",
    "ndcg_hinge",
    "ndcg_loss",
    "ndcg_loss_augmented",
    "ndcg_surrogate_value",
    "permutation",
    "precision",
    "precision_at_k",
    "ranking_svm",
    "recall",
    "recall_at_k",
    "specificity",
    "top_k_counts",
    "zero_one_ranking",
]
