"""Writes a tiny random Qwen3 causal LM with transformers' save_pretrained (float32 safetensors and
its config.json) and a tokenizer for it, seeded so that every machine makes the same weights:
python tiny_qwen3.py OUT.

2 layers, width 64, 4 query heads over 2 key-value heads of 16, tied embeddings (about 90k
parameters): the architecture of Qwen3-8B and -32B at a size a CPU trains in seconds.

The tokenizer is byte-level BPE without merges (token i is byte i, in GPT-2's byte-to-character
map, as Qwen's tokenizers spell bytes), then Qwen's <|endoftext|> (256), <|im_start|> (257) and
<|im_end|> (258) as special tokens, with Qwen3's own chat template (the copy the Java tests keep);
the vocabulary is padded to 272, the context is 4096 positions (an agent's system prompt with its
tools is about 2,000 bytes). So the model goes through the whole loop as a shipped Qwen3 does:
its checkpoints carry tokenizer.json and the runner lays episodes out with the template."""
import os
import shutil
import sys

import torch
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

CHAT_TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "libs", "model-core", "src", "test", "resources",
                             "chat-templates", "qwen3.jinja")


def byte_chars() -> list:
    """GPT-2's map of the 256 bytes to printable characters (the byte-level BPE alphabet)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def tokenizer() -> PreTrainedTokenizerFast:
    vocab = {c: i for i, c in enumerate(byte_chars())}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>")])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=["<|im_start|>"])
    with open(CHAT_TEMPLATE, encoding="utf-8") as f:
        fast.chat_template = f.read()
    return fast


def main(out: str) -> None:
    torch.manual_seed(20261204)
    tok = tokenizer()
    ids = tok.convert_tokens_to_ids(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    assert ids == [256, 257, 258], ids
    config = Qwen3Config(vocab_size=272, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=16, max_position_embeddings=4096, tie_word_embeddings=True,
                         bos_token_id=None, eos_token_id=258, pad_token_id=256)
    model = Qwen3ForCausalLM(config).to(torch.float32)
    model.generation_config.eos_token_id = [258, 256]
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1])
