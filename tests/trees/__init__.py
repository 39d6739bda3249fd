"""Tests of jaxlearn.trees."""
