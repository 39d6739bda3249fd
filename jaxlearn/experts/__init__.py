"""Prediction with expert advice and finite hypothesis classes (UML chapter 21; COMP0078)."""

from jaxlearn.experts._halving import VersionSpaceInfo
from jaxlearn.experts._halving import VersionSpaceState
from jaxlearn.experts._halving import consistent
from jaxlearn.experts._halving import halving
from jaxlearn.experts._hedge import HedgeInfo
from jaxlearn.experts._hedge import HedgeState
from jaxlearn.experts._hedge import hedge
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
    "HedgeInfo",
    "HedgeState",
    "RandomizedWeightedMajorityInfo",
    "RandomizedWeightedMajorityState",
    "VersionSpaceInfo",
    "VersionSpaceState",
    "WeightedAverageInfo",
    "WeightedAverageState",
    "WeightedMajorityInfo",
    "WeightedMajorityState",
    "consistent",
    "halving",
    "hedge",
    "randomized_weighted_majority",
    "weighted_average",
    "weighted_majority",
]
