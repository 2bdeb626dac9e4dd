"""The panels the cache page (`cachePage`) is composed of, one small widget each (napari's
per-control widgets are the model):

    dirs.CacheDirsPanel    cache mode and directory, and the directories CANN uses for them
    limits.LimitsPanel     max_op_cache_size and remain_cache_size_ratio, with the value CANN
                           uses now and where it comes from, "modified" and a reset
    usage.UsagePanel       the gauge and the scan (workers), or a support bundle's measurement
    ini.IniPanel           the op_cache.ini being edited: its state, findings, review and save

They share one `state.CacheState`: what the core resolves for the current choices (directories,
op_cache.ini, effective values) and the values the editors show. Every decision is the core's;
the panels display it. This package is imported when the cache page is built, not before the
window's first paint.
"""
