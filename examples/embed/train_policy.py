#!/usr/bin/env python3
"""Trains the point robot's policy in PyTorch and writes what
examples/embed/policy.cpp loads: policy.safetensors (the state dict of
nn.Sequential(Linear(4, 32), Tanh(), Linear(32, 2)), keys "0.weight" ...)
and policy_check.txt (observations and PyTorch's actions for them, the
host's check that it computes what PyTorch does).

The expert it imitates steers toward the goal at half the offset, each
component clipped to [-1, 1]. Needs only torch (the safetensors file is
written by hand: an 8-byte header length, a JSON header, the bytes).

    python3 examples/embed/train_policy.py
"""
import json
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def expert(obs):
    return torch.clamp(0.5 * (obs[:, 2:] - obs[:, :2]), -1.0, 1.0)


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to(torch.float32).numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    policy = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Tanh(), torch.nn.Linear(32, 2))
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for step in range(2000):
        obs = torch.rand(128, 4) * 4 - 2
        loss = torch.mean((policy(obs) - expert(obs)) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"trained: loss {loss.item():.5f}")
    save_safetensors(os.path.join(HERE, "policy.safetensors"), policy.state_dict())
    check = torch.tensor([[0.0, 0.0, 1.0, 1.0], [1.5, -0.5, -1.0, 0.25], [-2.0, 2.0, 2.0, -2.0],
                          [0.3, 0.1, 0.3, 0.1]])
    with torch.no_grad():
        actions = policy(check)
    with open(os.path.join(HERE, "policy_check.txt"), "w") as f:
        f.write("# obs (4) then PyTorch's action (2), one line each: policy.cpp checks them\n")
        for o, a in zip(check.tolist(), actions.tolist()):
            f.write(" ".join(f"{v:.9g}" for v in o + a) + "\n")


if __name__ == "__main__":
    main()
