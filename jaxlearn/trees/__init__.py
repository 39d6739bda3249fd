"""Decision trees (ID3 with threshold splits), pruning and random forests (UML chapter 18)."""

from jaxlearn.trees._forest import RandomForestParams
from jaxlearn.trees._forest import bootstrap_counts
from jaxlearn.trees._forest import random_forest
from jaxlearn.trees._mdl import description_length
from jaxlearn.trees._mdl import mdl_code
from jaxlearn.trees._mdl import mdl_decode
from jaxlearn.trees._prune import num_nodes
from jaxlearn.trees._prune import prune
from jaxlearn.trees._criteria import gain
from jaxlearn.trees._criteria import impurity
from jaxlearn.trees._params import DecisionTreeParams
from jaxlearn.trees._tree import apply
from jaxlearn.trees._tree import decision_tree
from jaxlearn.trees._tree import predict_proba

__all__ = [
    "DecisionTreeParams",
    "RandomForestParams",
    "apply",
    "bootstrap_counts",
    "decision_tree",
    "description_length",
    "gain",
    "impurity",
    "mdl_code",
    "mdl_decode",
    "num_nodes",
    "predict_proba",
    "prune",
    "random_forest",
]
