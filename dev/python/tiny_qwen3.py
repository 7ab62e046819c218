"""Writes a tiny random Qwen3 causal LM with transformers' save_pretrained (float32 safetensors and
its config.json, no tokenizer: the Tinker tests speak token ids), seeded so that every machine
makes the same weights: python tiny_qwen3.py OUT.

2 layers, width 64, 4 query heads over 2 key-value heads of 16, vocabulary 256, tied embeddings
(about 90k parameters): the architecture of Qwen3-8B and -32B at a size a CPU trains in seconds."""
import os
import shutil
import sys

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM


def main(out: str) -> None:
    torch.manual_seed(20261204)
    config = Qwen3Config(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=16, max_position_embeddings=512, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model = Qwen3ForCausalLM(config).to(torch.float32)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1])
