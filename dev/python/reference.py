"""transformers (and PEFT) as the reference the Java tests compare with. One JSON object on stdout.

  reference.py logprobs --model DIR [--adapter DIR] --tokens 1,2,3
      {"logprobs": [log p(t[i+1] | t[0..i]) ...]}, float32 as loaded, computed in float64 from the logits
  reference.py generate --model DIR [--adapter DIR] --tokens 1,2,3 --max-new-tokens N
      {"tokens": [...]}: greedy generate's new tokens (stops at the model's end tokens)
  reference.py chat --model DIR --messages FILE [--tools FILE] [--no-generation-prompt]
      {"text": ..., "ids": [...]}: apply_chat_template's rendering and its token ids
  reference.py chat-cases --cases FILE
      FILE: [{"model": DIR, "messages": [...], "tools": [...] or null, "add_generation_prompt": bool,
      "variables": {...}}, ...]; [{"text": ..., "ids": [...]} or {"error": "..."} per case], in one process
  reference.py template-corpus --templates FILE --conversations FILE
      FILE: {name: template} (dev/stack's chat-template corpus); conversations: {"conversations": {name: [...]},
      "tools": [...]}. Every template over every conversation, without and with the tools, rendered by
      transformers' render_jinja_template (Jinja2 as apply_chat_template configures it, generation prompt on,
      bos/eos/unk/pad as <s> </s> <unk> <pad>, strftime_now at 2026-01-15 12:00):
      [{"template": ..., "conversation": ..., "tools": bool, "text": ...} or {..., "error": "..."}]
  reference.py tiny-families --out DIR --tokens 1,2,3
      tiny random models of each family alice-rl reads, in each weight type, written by transformers'
      own save_pretrained (DIR/<family>-<dtype>), each with a random LoRA adapter written by PEFT
      (DIR/<family>-<dtype>-adapter); {"<family>-<dtype>": {"logprobs": [...], "adapted": [...]}}
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
        out = load(a.model, a.adapter).generate(torch.tensor([tokens]), attention_mask=torch.ones(1, len(tokens), dtype=torch.long),
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


def chat_cases(a):
    with open(a.cases) as f:
        cases = json.load(f)
    tokenizers = {}
    out = []
    for case in cases:
        tokenizer = tokenizers.setdefault(case["model"], AutoTokenizer.from_pretrained(case["model"]))
        try:
            text = tokenizer.apply_chat_template(case["messages"], tools=case.get("tools"), tokenize=False,
                                                 add_generation_prompt=case.get("add_generation_prompt", True),
                                                 **case.get("variables", {}))
            out.append({"text": text, "ids": tokenizer(text, add_special_tokens=False)["input_ids"]})
        except Exception as e:  # a template that raises, as the case may mean it to
            out.append({"error": f"{type(e).__name__}: {e}"})
    return {"results": out}


FAMILIES = {
    # small widths, two layers, grouped-query attention; no sliding window (alice-rl refuses it)
    "llama": dict(model_type="llama", attention_bias=True, rope_theta=500000.0,
                  rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                "original_max_position_embeddings": 32}),
    "mistral": dict(model_type="mistral", sliding_window=None),
    "qwen2": dict(model_type="qwen2", use_sliding_window=False, tie_word_embeddings=True),
    "qwen3": dict(model_type="qwen3", head_dim=16, use_sliding_window=False),
}


def template_corpus(a):
    import datetime as dt
    from transformers.utils import chat_template_utils

    class PinnedClock(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 1, 15, 12, 0, 0)

    chat_template_utils.datetime = PinnedClock  # what the templates' strftime_now reads
    with open(a.templates) as f:
        templates = json.load(f)
    with open(a.conversations) as f:
        fixture = json.load(f)
    specials = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    out = []
    for name in sorted(templates):
        for conv, messages in fixture["conversations"].items():
            for with_tools in (False, True):
                case = {"template": name, "conversation": conv, "tools": with_tools}
                try:
                    rendered, _ = chat_template_utils.render_jinja_template(
                        conversations=[messages], tools=fixture["tools"] if with_tools else None, chat_template=templates[name],
                        add_generation_prompt=True, **specials)
                    case["text"] = rendered[0]
                except Exception as e:  # the template refused the conversation: Java must refuse it too
                    case["error"] = f"{type(e).__name__}: {e}"
                out.append(case)
    return out


def tiny_families(a):
    import os
    import zlib
    from peft import LoraConfig, get_peft_model
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from transformers import AutoConfig
    tokens = ids(a.tokens)
    vocab = 64
    out = {}
    for family, extra in FAMILIES.items():
        for dtype in ("float32", "bfloat16", "float16"):
            name = f"{family}-{dtype}"
            kw = dict(vocab_size=vocab, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=256, initializer_range=0.3, rms_norm_eps=1e-5)
            kw.update(extra)
            config = AutoConfig.for_model(**kw)
            torch.manual_seed(zlib.crc32(name.encode()))
            model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).to(getattr(torch, dtype))
            folder = os.path.join(a.out, name)
            model.save_pretrained(folder)
            Tokenizer(WordLevel({f"w{i}": i for i in range(vocab)}, unk_token="w0")).save(os.path.join(folder, "tokenizer.json"))
            base = load(folder)
            with torch.no_grad():
                plain = torch.log_softmax(base(torch.tensor([tokens])).logits[0].double(), dim=-1)
            peft_config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "gate_proj"], init_lora_weights=False)
            adapted_model = get_peft_model(base, peft_config)
            adapted_model.save_pretrained(folder + "-adapter")
            adapted_model.eval()
            with torch.no_grad():
                adapted = torch.log_softmax(adapted_model(torch.tensor([tokens])).logits[0].double(), dim=-1)
            out[name] = {"logprobs": [plain[i, tokens[i + 1]].item() for i in range(len(tokens) - 1)],
                         "adapted": [adapted[i, tokens[i + 1]].item() for i in range(len(tokens) - 1)]}
    return out


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("logprobs")
    s.add_argument("--model", required=True)
    s.add_argument("--adapter")
    s.add_argument("--tokens", required=True)
    s = sub.add_parser("generate")
    s.add_argument("--model", required=True)
    s.add_argument("--adapter")
    s.add_argument("--tokens", required=True)
    s.add_argument("--max-new-tokens", type=int, required=True)
    s = sub.add_parser("chat")
    s.add_argument("--model", required=True)
    s.add_argument("--messages", required=True)
    s.add_argument("--tools")
    s.add_argument("--no-generation-prompt", action="store_true")
    s = sub.add_parser("chat-cases")
    s.add_argument("--cases", required=True)
    s = sub.add_parser("template-corpus")
    s.add_argument("--templates", required=True)
    s.add_argument("--conversations", required=True)
    s = sub.add_parser("tiny-families")
    s.add_argument("--out", required=True)
    s.add_argument("--tokens", required=True)
    a = p.parse_args()
    result = {"logprobs": logprobs, "generate": generate, "chat": chat, "chat-cases": chat_cases, "template-corpus": template_corpus,
              "tiny-families": tiny_families}[a.command](a)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
