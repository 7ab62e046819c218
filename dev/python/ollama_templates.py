"""Real chat templates as a test corpus: npm's @huggingface/ollama-utils ships, in
src/chat-template-automap.ts, the Jinja chat templates of ~100 models as found in their GGUF files
(each entry's `model` and `gguf`). Reads that file and writes {name: template} as JSON, one entry
per distinct template (the first model that has it names it).

  ollama_templates.py SOURCE.ts OUT.json
"""
import json
import re
import sys

STRING = r'"((?:[^"\\]|\\.)*)"'
ENTRY = re.compile(r"model:\s*" + STRING + r",\s*gguf:\s*" + STRING, re.DOTALL)


def main(source, out):
    with open(source, encoding="utf-8") as f:
        text = f.read()
    corpus = {}
    for model, gguf in ENTRY.findall(text):
        template = json.loads('"' + gguf + '"')  # the file's strings are JSON-compatible double-quoted literals
        if template not in corpus.values():
            corpus[json.loads('"' + model + '"')] = template
    if len(corpus) < 50:
        sys.exit(f"only {len(corpus)} templates read from {source}: has its layout changed?")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(corpus, f, indent=1, sort_keys=True)
    print(f"{len(corpus)} templates", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
