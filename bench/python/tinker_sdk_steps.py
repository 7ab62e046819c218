"""The official tinker SDK taking the GRPO++ steps TinkerBench's Java side takes, on the same engine
and batch: forward (cross_entropy), forward_backward (ppo with the clip thresholds), optim_step.

python tinker_sdk_steps.py URL BASE_MODEL BATCH_JSON WARMUP STEPS

BATCH_JSON: {"rows": [{"tokens": [...], "logprobs": [...], "advantages": [...]}], "clip": {...}, "lr": x}.
Prints one JSON line: wall seconds and this process's CPU seconds per measured step."""
import json
import os
import sys
import time

import tinker
from tinker import types


def main(url: str, base_model: str, batch_path: str, warmup: int, steps: int) -> None:
    with open(batch_path, encoding="utf-8") as f:
        spec = json.load(f)
    os.environ.setdefault("TINKER_API_KEY", "tml-unused")
    service = tinker.ServiceClient(base_url=url)
    training = service.create_lora_training_client(base_model=base_model, rank=spec["rank"], seed=3, train_unembed=False)
    ce, ppo = [], []
    for row in spec["rows"]:
        tokens = row["tokens"]
        model_input = types.ModelInput.from_ints(tokens[:-1])
        ce.append(types.Datum(model_input=model_input, loss_fn_inputs={"target_tokens": tokens[1:]}))
        ppo.append(types.Datum(model_input=model_input, loss_fn_inputs={"target_tokens": tokens[1:], "logprobs": row["logprobs"],
                                                                          "advantages": row["advantages"]}))
    adam = types.AdamParams(learning_rate=spec["lr"], beta1=0.9, beta2=0.999, eps=1e-8)
    wall, cpu = [], []
    for step in range(warmup + steps):
        t0, c0 = time.perf_counter(), time.process_time()
        training.forward(ce, "cross_entropy").result()
        training.forward_backward(ppo, "ppo", spec["clip"]).result()
        training.optim_step(adam).result()
        if step >= warmup:
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    print(json.dumps({"wall": wall, "cpu": cpu}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
