"""Data, not code: the option catalog, the device table, message texts and translations.

A package only so that `importlib.resources` finds these files in an installed wheel and in a
frozen (PyInstaller) bundle alike.
"""
