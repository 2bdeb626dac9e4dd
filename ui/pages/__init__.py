"""The four wizard pages: device, memory, cache, export. Each reads the controller and has a
`retranslate()` so a language switch can redo every text."""
