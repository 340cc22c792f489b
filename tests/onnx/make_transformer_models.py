#!/usr/bin/env python3
"""BERT-, DistilBERT- and GPT-2-style models of `transformers` (small
configurations, weights drawn from seed 0), exported with open batch and
sequence axes as their users export them, and ONNX Runtime's outputs at
sequence lengths 8, 32 and 128, batch 1 and 4, which
tests/onnx/sizes_test.cpp holds one load of each to:

    python3 tests/onnx/make_transformer_models.py   # needs torch, transformers, onnx, onnxruntime, safetensors

Each goldens file models/transformers/NAME_BxS.safetensors holds the
inputs (by the graph's input names) and ONNX Runtime's outputs (by its
output names), int64 as int32."""
import os

import numpy as np
import onnxruntime
import torch
import transformers
from safetensors.numpy import save_file

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "transformers")
VOCAB, POSITIONS = 100, 128


def models():
    common = dict(vocab_size=VOCAB, max_position_embeddings=POSITIONS)
    bert = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                   intermediate_size=64, **common)
    distil = transformers.DistilBertConfig(dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                                           **common)
    gpt2 = transformers.GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=POSITIONS,
                                   vocab_size=VOCAB)
    yield "bert", transformers.BertModel(bert), ["input_ids", "attention_mask", "token_type_ids"]
    yield "distilbert", transformers.DistilBertModel(distil), ["input_ids", "attention_mask"]
    yield "gpt2", transformers.GPT2Model(gpt2), ["input_ids", "attention_mask"]


class ByName(torch.nn.Module):
    """The model called with its inputs by name (forward's positions differ
    between transformers' versions), its first output returned."""

    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *args):
        return self.model(**dict(zip(self.names, args)))[0]


def feeds_at(names, batch, seq):
    i = np.arange(batch * seq, dtype=np.int64).reshape(batch, seq)
    out = {"input_ids": (i * 7 + 3) % VOCAB}
    if "attention_mask" in names:  # each row's last (row) positions masked, row 0 none
        mask = np.ones((batch, seq), np.int64)
        for r in range(batch):
            if r:
                mask[r, seq - r:] = 0
        out["attention_mask"] = mask
    if "token_type_ids" in names:
        out["token_type_ids"] = (np.arange(seq)[None, :] >= seq // 2).astype(np.int64).repeat(
            batch, 0)
    return out


def main():
    os.makedirs(HERE, exist_ok=True)
    torch.manual_seed(0)
    for name, model, names in models():
        model.eval()
        model.config.return_dict = False
        example = feeds_at(names, 2, 16)
        args = tuple(torch.from_numpy(example[n]) for n in names)
        path = os.path.join(HERE, name + ".onnx")
        axes = {n: {0: "batch", 1: "sequence"} for n in names}
        axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
        torch.onnx.export(ByName(model, names), args, path, input_names=names, output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        kept = [o.name for o in session.get_outputs()][:1]
        for batch in (1, 4):
            for seq in (8, 32, 128):
                feeds = feeds_at(names, batch, seq)
                (out,) = session.run(kept, feeds)
                tensors = {k: v.astype(np.int32) for k, v in feeds.items()}
                tensors[kept[0]] = out
                save_file(tensors, os.path.join(HERE, f"{name}_{batch}x{seq}.safetensors"))
        print(name, os.path.getsize(path), flush=True)


if __name__ == "__main__":
    main()
