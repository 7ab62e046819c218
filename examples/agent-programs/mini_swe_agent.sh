#!/bin/sh
# mini-swe-agent 2.x (checked with 2.4.6) as an alice-rl agent program: its `mini` command as it
# ships, with its default configuration (bash as an OpenAI tool), headless:
# - no confirmations (--yolo) and no question at the end (--exit-immediately), stdin closed;
# - no cost limit and no price lookup: the policy has no price, litellm's table is read locally;
# - its settings and trajectory in the sandbox's /tmp (its home is read-only).
# Arguments after the script's name go to `mini` (another --config, --step-limit, ...).
export MSWEA_CONFIGURED=true MSWEA_SILENT_STARTUP=1 MSWEA_COST_TRACKING=ignore_errors
export MSWEA_GLOBAL_CONFIG_DIR=/tmp/mini LITELLM_LOCAL_MODEL_COST_MAP=True
exec "$ALICE_RL_AGENT_ENV/bin/mini" --yolo --exit-immediately --cost-limit 0 --model "openai/$ALICE_RL_MODEL" \
  --task "$(cat "$ALICE_RL_PROBLEM")" --output /tmp/mini/trajectory.json "$@" < /dev/null
