"""transformers (and PEFT) as the reference the Java tests compare with. One JSON object on stdout.

  reference.py logprobs --model DIR [--adapter DIR] --tokens 1,2,3
      {"logprobs": [log p(t[i+1] | t[0..i]) ...]}, float32 as loaded, computed in float64 from the logits
  reference.py generate --model DIR --tokens 1,2,3 --max-new-tokens N
      {"tokens": [...]}: greedy generate's new tokens (stops at the model's end tokens)
  reference.py chat --model DIR --messages FILE [--tools FILE] [--no-generation-prompt]
      {"text": ..., "ids": [...]}: apply_chat_template's rendering and its token ids
"""
import argparse
import json
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def load(model_dir, adapter_dir=None):
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    if adapter_dir:
        from peft import PeftModel
        model = PeftModel.from_pretrained(model, adapter_dir)
    model.eval()
    return model


def ids(text):
    return [int(t) for t in text.split(",")]


def logprobs(a):
    tokens = ids(a.tokens)
    with torch.no_grad():
        logits = load(a.model, a.adapter)(torch.tensor([tokens])).logits[0].double()
    lp = torch.log_softmax(logits, dim=-1)
    return {"logprobs": [lp[i, tokens[i + 1]].item() for i in range(len(tokens) - 1)]}


def generate(a):
    tokens = ids(a.tokens)
    with torch.no_grad():
        out = load(a.model).generate(torch.tensor([tokens]), attention_mask=torch.ones(1, len(tokens), dtype=torch.long),
                                     max_new_tokens=a.max_new_tokens, do_sample=False)
    return {"tokens": out[0][len(tokens):].tolist()}


def chat(a):
    tokenizer = AutoTokenizer.from_pretrained(a.model)
    with open(a.messages) as f:
        messages = json.load(f)
    tools = None
    if a.tools:
        with open(a.tools) as f:
            tools = json.load(f)
    text = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=not a.no_generation_prompt, tokenize=False)
    return {"text": text, "ids": tokenizer(text, add_special_tokens=False)["input_ids"]}


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("logprobs")
    s.add_argument("--model", required=True)
    s.add_argument("--adapter")
    s.add_argument("--tokens", required=True)
    s = sub.add_parser("generate")
    s.add_argument("--model", required=True)
    s.add_argument("--tokens", required=True)
    s.add_argument("--max-new-tokens", type=int, required=True)
    s = sub.add_parser("chat")
    s.add_argument("--model", required=True)
    s.add_argument("--messages", required=True)
    s.add_argument("--tools")
    s.add_argument("--no-generation-prompt", action="store_true")
    a = p.parse_args()
    result = {"logprobs": logprobs, "generate": generate, "chat": chat}[a.command](a)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
