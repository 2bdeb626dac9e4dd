"""Support staff's view of a customer's host: diagnosis, the support bundle, and the report.

A diagnosis is what CANN will do with a set of files (effective values, sources, findings); a
bundle carries what `collect` read on the customer's host; the report renders either.
"""
