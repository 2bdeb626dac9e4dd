"""Files in and out: the guarded reader, env files, importers of scripts and exports, exporters.

Every file a user names is read through inputfiles; every format the tool writes is a pure
function in exporters; importers read those formats (and hand-written scripts) back into a Profile.
"""
