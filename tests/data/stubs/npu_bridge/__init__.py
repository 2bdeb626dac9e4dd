"""Stand-in for the TF Adapter 1.x package `npu_bridge` (CANN 9.x signatures)."""
