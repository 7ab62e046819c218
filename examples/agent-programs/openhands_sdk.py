"""OpenHands' software agent SDK (openhands-sdk and openhands-tools 1.58.2), headless, as an
alice-rl agent program: its terminal and file editor tools in the current directory (the episode's
workspace), the policy at OPENAI_BASE_URL, the problem in the file ALICE_RL_PROBLEM.

The SDK is used as it ships; only its settings are chosen here:
- no condenser: the history goes back to the model as it was, so the calls stay one context, and
  the endpoint's "maximum context length" answer ends the run instead of a summarising retry;
- the terminal as a plain pty (no tmux), with bash's bracketed paste off so that escape codes stay
  out of what the model is shown;
- nothing sent that the endpoint would ignore (reasoning effort, prompt-cache keys), the model's
  price table read locally, the SDK's state in a temporary folder (the sandbox's home is read-only).
Exit 0 when the conversation finished (the agent called finish, or answered with text: OpenHands
then waits for the user, which ends a headless run), 1 otherwise.
"""
import os
import sys
import tempfile

state = tempfile.mkdtemp(prefix="openhands-")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OH_PERSISTENCE_DIR", os.path.join(state, "state"))
if "INPUTRC" not in os.environ:
    os.environ["INPUTRC"] = os.path.join(state, "inputrc")
    with open(os.environ["INPUTRC"], "w") as f:
        f.write("set enable-bracketed-paste off\n")

from openhands.sdk import LLM, Agent, Conversation, Tool  # noqa: E402  (after the settings above)
from openhands.sdk.conversation import ConversationExecutionStatus  # noqa: E402
from openhands.tools.file_editor import FileEditorTool  # noqa: E402
from openhands.tools.terminal import TerminalTool  # noqa: E402


def main() -> int:
    with open(os.environ["ALICE_RL_PROBLEM"], encoding="utf-8") as f:
        problem = f.read()
    llm = LLM(
        model="openai/" + os.environ.get("ALICE_RL_MODEL", "policy"),
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        usage_id="agent",
        num_retries=2,
        native_tool_calling=True,
        caching_prompt=False,
        stream=False,
        reasoning_effort=None,
        capability_overrides={"supports_prompt_cache_key": False, "supports_reasoning_effort": False},
    )
    agent = Agent(
        llm=llm,
        tools=[Tool(name=TerminalTool.name, params={"terminal_type": "subprocess"}), Tool(name=FileEditorTool.name)],
        condenser=None,
    )
    conversation = Conversation(agent=agent, workspace=os.getcwd(), persistence_dir=None,
                                max_iteration_per_run=int(os.environ.get("OPENHANDS_MAX_ITERATIONS", "100")), visualizer=None)
    conversation.send_message(problem)
    try:
        conversation.run()
    except Exception as e:  # the SDK wraps the model's errors (a spent budget among them)
        print(f"openhands: the conversation ended: {e}", file=sys.stderr)
    status = conversation.state.execution_status
    print(f"openhands: {status.value}", file=sys.stderr)
    conversation.close()
    return 0 if status == ConversationExecutionStatus.FINISHED else 1


if __name__ == "__main__":
    sys.exit(main())
