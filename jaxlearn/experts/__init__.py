"""Prediction with expert advice and finite hypothesis classes (UML chapter 21; COMP0078)."""

from jaxlearn.experts._agnostic import AgnosticInfo
from jaxlearn.experts._agnostic import AgnosticState
from jaxlearn.experts._agnostic import agnostic_experts
from jaxlearn.experts._halving import VersionSpaceInfo
from jaxlearn.experts._halving import VersionSpaceState
from jaxlearn.experts._halving import consistent
from jaxlearn.experts._halving import halving
from jaxlearn.experts._hedge import HedgeInfo
from jaxlearn.experts._hedge import HedgeState
from jaxlearn.experts._hedge import hedge
from jaxlearn.experts._soa import SOAInfo
from jaxlearn.experts._soa import SOAState
from jaxlearn.experts._soa import littlestone_dimension
from jaxlearn.experts._soa import shattered_tree
from jaxlearn.experts._soa import soa
from jaxlearn.experts._soa import vc_dimension
from jaxlearn.experts._weighted_average import WeightedAverageInfo
from jaxlearn.experts._weighted_average import WeightedAverageState
from jaxlearn.experts._weighted_average import weighted_average
from jaxlearn.experts._weighted_majority import RandomizedWeightedMajorityInfo
from jaxlearn.experts._weighted_majority import RandomizedWeightedMajorityState
from jaxlearn.experts._weighted_majority import WeightedMajorityInfo
from jaxlearn.experts._weighted_majority import WeightedMajorityState
from jaxlearn.experts._weighted_majority import randomized_weighted_majority
from jaxlearn.experts._weighted_majority import weighted_majority

__all__ = [
    "AgnosticInfo",
    "AgnosticState",
    "HedgeInfo",
    "HedgeState",
    "RandomizedWeightedMajorityInfo",
    "RandomizedWeightedMajorityState",
    "SOAInfo",
    "SOAState",
    "VersionSpaceInfo",
    "VersionSpaceState",
    "WeightedAverageInfo",
    "WeightedAverageState",
    "WeightedMajorityInfo",
    "WeightedMajorityState",
    "agnostic_experts",
    "consistent",
    "halving",
    "hedge",
    "littlestone_dimension",
    "randomized_weighted_majority",
    "shattered_tree",
    "soa",
    "vc_dimension",
    "weighted_average",
    "weighted_majority",
]
