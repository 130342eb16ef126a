"""The values extensions exchange through hooks: outcomes, tokens, latencies, stops.

PYTEST_DONT_REWRITE
"""
