"""vLLM's own code as the reference the Java tests compare with, run in vLLM's environment
(dev/stack python). One JSON object on stdout.

  vllm_reference.py hermes --model DIR --texts FILE
      FILE: a JSON array of model outputs. For each, what vLLM's Hermes tool parser (the one
      `--tool-call-parser hermes` selects) makes of it:
      {"tools_called": bool, "content": str or null, "calls": [{"name": ..., "arguments": <JSON value>}]}
"""
import argparse
import json
import sys


def hermes_parser(model_dir):
    from transformers import AutoTokenizer
    try:
        from vllm.tool_parsers import ToolParserManager
    except ImportError:
        from vllm.entrypoints.openai.tool_parsers import ToolParserManager
    return ToolParserManager.get_tool_parser("hermes")(AutoTokenizer.from_pretrained(model_dir))


def hermes(a):
    parser = hermes_parser(a.model)
    with open(a.texts) as f:
        texts = json.load(f)
    out = []
    for text in texts:
        info = parser.extract_tool_calls(text, None)
        out.append({"tools_called": info.tools_called, "content": info.content,
                    "calls": [{"name": c.function.name, "arguments": json.loads(c.function.arguments)} for c in info.tool_calls]})
    return {"results": out}


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("hermes")
    s.add_argument("--model", required=True)
    s.add_argument("--texts", required=True)
    a = p.parse_args()
    result = {"hermes": hermes}[a.command](a)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
