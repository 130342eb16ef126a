"""The Agresti–Coull interval as a pytest-probability interval method."""
