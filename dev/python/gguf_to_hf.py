"""Turns a GGUF file into a HuggingFace model folder with transformers (weights dequantised to
float32, its tokenizer, its chat template), as a user would: python gguf_to_hf.py FILE.gguf OUT.

transformers loads GGUF files but refuses to save a model it still marks as GGUF-quantised, so
the dequantised weights are moved into a plain model of the same config before saving."""
import os
import shutil
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def main(gguf: str, out: str) -> None:
    folder, name = os.path.split(os.path.abspath(gguf))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.generation_config = loaded.generation_config
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    plain.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: gguf_to_hf.py FILE.gguf OUT_DIR")
    main(sys.argv[1], sys.argv[2])
