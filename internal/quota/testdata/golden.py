# Writes golden.json: Python's own repr() lengths and the gateway's admission estimates, for
# quota's tests to compare with. Run with any Python 3: python3 golden.py > golden.json
import json
import random

rng = random.Random(44)
pool = ["a", "Z", " ", "'", '"', "\\", "\t", "\n", "\r", "\x00", "\x1b", "\x7f", "\x80", "\x9f",
        "\xa0", "\xad", "é", "ÿ", "Ā", "\u0301", "\u200b", "\u2028", "\u2029", "\u3000", "\ue000",
        "\ufeff", "\uffff", "中", "\U0001f600", "\U000e0001", "\U0010ffff", "\U0001d400", "€"]

def rand_str(n):
    return "".join(rng.choice(pool) for _ in range(n))

cases = {"repr": [], "chat": [], "embeddings": [], "floats": []}
for n in list(range(0, 6)) + [rng.randrange(6, 60) for _ in range(200)]:
    s = rand_str(n)
    cases["repr"].append({"s": s, "len": len(repr(s))})

def part(rng):
    k = rng.randrange(4)
    if k == 0:
        t = rand_str(rng.randrange(0, 20))
        return {"type": "text", "text": t}, {"type": "text", "text": t}
    if k == 1:
        u = "data:image/png;base64," + rand_str(rng.randrange(0, 20))
        return ({"type": "image_url", "image_url": {"url": u}},
                {"type": "image_url", "image_url": {"url": u}})
    if k == 2:
        u, d = rand_str(rng.randrange(0, 10)), rng.choice(["low", "high", "auto", "x'y"])
        return ({"type": "image_url", "image_url": {"url": u, "detail": d}},
                {"type": "image_url", "image_url": {"url": u, "detail": d}})
    a = rand_str(rng.randrange(0, 10))
    return ({"type": "input_audio", "input_audio": {"data": a, "format": "wav", "extra": None, "n": 1.5e-7}},
            {"type": "input_audio", "input_audio": {"data": a, "format": "wav", "n": 1.5e-7}})

for _ in range(200):
    sent, dumped = [], []
    for _ in range(rng.randrange(0, 5)):
        k = rng.randrange(4)
        if k == 0:
            c = rand_str(rng.randrange(0, 40))
            sent.append({"role": "user", "content": c}); dumped.append({"role": "user", "content": c})
        elif k == 1:
            sent.append({"role": "assistant", "content": None, "tool_calls": []})
            dumped.append({"role": "assistant", "tool_calls": []})
        elif k == 2:
            sent.append({"role": "user"}); dumped.append({"role": "user"})
        else:
            ps = [part(rng) for _ in range(rng.randrange(0, 4))]
            sent.append({"role": "user", "content": [p[0] for p in ps]})
            dumped.append({"role": "user", "content": [p[1] for p in ps]})
    # The gateway's estimate, over the dumped messages.
    est = max(sum(len(str(m.get("content", ""))) for m in dumped if isinstance(m, dict)) // 4, 1)
    cases["chat"].append({"body": json.dumps({"model": "glm-5", "messages": sent}), "estimate": est})

for _ in range(100):
    k = rng.randrange(3)
    if k == 0:
        inp = rand_str(rng.randrange(0, 40))
    elif k == 1:
        inp = [rand_str(rng.randrange(0, 10)) for _ in range(rng.randrange(0, 5))]
    else:
        inp = [rng.choice([1, -7, 2.5, 1e20, True, None, [1, 2], {"a": "b"}]) for _ in range(3)]
    text = inp if isinstance(inp, str) else " ".join(str(i) for i in inp)
    cases["embeddings"].append({"body": json.dumps({"input": inp}), "estimate": max(len(text) // 4, 1)})

for text in ["0", "-0", "12", "-12", "1.0", "-0.0", "1e5", "1E16", "1e15", "123456789012345678",
             "0.0001", "0.00001", "1.5e-7", "2.5", "1e400", "-1e400", "3.14159", "1e-320", "100.0e-2",
             "12345678901234567.0", "9007199254740993.0"]:
    v = json.loads(text)
    cases["floats"].append({"text": text, "len": len(repr(v))})

print(json.dumps(cases, ensure_ascii=True, indent=0))
