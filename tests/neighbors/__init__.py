"""Tests of jaxlearn.neighbors."""
