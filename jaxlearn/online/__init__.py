"""Online learners: the Perceptron family, Winnow, OGD, conjunctions and decision lists; online
standardisation for :func:`jaxlearn.core.pipeline`."""

from jaxlearn.online._conjunction import ConjunctionInfo
from jaxlearn.online._conjunction import ConjunctionState
from jaxlearn.online._conjunction import conjunction
from jaxlearn.online._decision_list import DecisionListInfo
from jaxlearn.online._decision_list import DecisionListState
from jaxlearn.online._decision_list import decision_list
from jaxlearn.online._kernel_perceptron import KernelPerceptronInfo
from jaxlearn.online._kernel_perceptron import KernelPerceptronState
from jaxlearn.online._kernel_perceptron import kernel_perceptron
from jaxlearn.online._ogd import OGDInfo
from jaxlearn.online._ogd import OGDState
from jaxlearn.online._ogd import best_fixed_predictor
from jaxlearn.online._ogd import online_gradient_descent
from jaxlearn.online._perceptron import MarginPerceptronInfo
from jaxlearn.online._perceptron import PerceptronInfo
from jaxlearn.online._perceptron import PerceptronState
from jaxlearn.online._perceptron import margin_perceptron
from jaxlearn.online._perceptron import perceptron
from jaxlearn.online._projections import box
from jaxlearn.online._projections import l2_ball
from jaxlearn.online._projections import simplex
from jaxlearn.online._standardize import StandardizeState
from jaxlearn.online._standardize import standardize
from jaxlearn.online._winnow import WinnowInfo
from jaxlearn.online._winnow import WinnowState
from jaxlearn.online._winnow import winnow

__all__ = [
    "ConjunctionInfo",
    "ConjunctionState",
    "DecisionListInfo",
    "DecisionListState",
    "KernelPerceptronInfo",
    "KernelPerceptronState",
    "MarginPerceptronInfo",
    "OGDInfo",
    "OGDState",
    "PerceptronInfo",
    "PerceptronState",
    "StandardizeState",
    "WinnowInfo",
    "WinnowState",
    "best_fixed_predictor",
    "box",
    "conjunction",
    "decision_list",
    "kernel_perceptron",
    "l2_ball",
    "margin_perceptron",
    "online_gradient_descent",
    "perceptron",
    "simplex",
    "standardize",
    "winnow",
]
