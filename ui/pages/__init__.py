"""The four wizard pages: device, memory, cache, export.

Each is a `ui.pages.base.WizardPage` (build, retranslate, refresh, remember, stop): the wizard
builds the device page before the first paint and the others after it, a slice per turn of the
event loop, or at once when one is shown or asked for first; `ui.create_wizard` builds them all
at once. The cache page is composed of the panels in `ui.pages.cache_panels`.
"""
