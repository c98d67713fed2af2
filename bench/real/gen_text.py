#!/usr/bin/env python3
"""gen_text.py: writes SIZE_MB of deterministic, text-like, compressible input
for the zstd workload (Zipf-distributed pseudo-words in lines of varied
length; zstd -3 compresses it about 3:1, like prose or logs).

usage: gen_text.py OUT SIZE_MB"""
import random
import sys

out, size_mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261123)
letters = "etaoinshrdlucmfwypvbgkqjxz"
vocab = ["".join(rng.choice(letters[: 8 + i % 18]) for _ in range(2 + i % 9))
         for i in range(20000)]
weights = [1.0 / (r + 1) for r in range(len(vocab))]
target = size_mb << 20
with open(out, "w") as f:
    written = 0
    while written < target:
        words = rng.choices(vocab, weights, k=200000)
        lines, line = [], []
        for w in words:
            line.append(w)
            if len(line) >= 6 + (len(w) * 7) % 11:
                lines.append(" ".join(line))
                line = []
        chunk = "\n".join(lines) + "\n"
        f.write(chunk)
        written += len(chunk)
    f.truncate(target)
