"""The NPU memory triage: "why did my job run out of NPU memory?" (issue 28).

A log or a pasted error goes in; out come the memory errors found in it (`events.find_events`:
kind, line, device, every number in bytes), the cause of each and what to change
(`analysis.triage_text`), and the HBM budget of one card (`app.hbm_budget`). The CLI
(`cann-config triage`), the wizard's "Paste an error" dialog, `collect --log` and the support
report are views of the same result. What CANN and torch_npu print, and why the tool reads it so:
docs/cann/npu-memory.md.
"""
