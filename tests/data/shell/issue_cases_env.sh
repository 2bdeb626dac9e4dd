# Sourced by issue_cases.sh through "$SCRIPT_DIR/issue_cases_env.sh".
export ASCEND_LAUNCH_BLOCKING=0
