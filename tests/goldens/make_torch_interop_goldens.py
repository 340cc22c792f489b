#!/usr/bin/env python3
"""PyTorch interop goldens for tests/programs/interop/torch_cnn.ss (the
digits CNN in PyTorch's layouts, generic Conv3[I, O] and Linear[I, O]):

- tests/goldens/torch_cnn.safetensors: the state dict of the same CNN in
  PyTorch (nn.Conv2d, nn.Linear, flatten of NCHW), trained 2 epochs with
  seed 0, saved with safetensors.torch.save_file;
- tests/goldens/torch_cnn_logits.txt: its logits on the first 32 test
  digits, which the C++ test (tests/api/torch_interop_test.cpp, no PyTorch)
  matches after loading the state dict.

Then, with the CLI built (build/default/bin/shapescript), the other way:
shapescript loads the state dict and saves it again, and PyTorch's
load_state_dict(strict=True) takes that file and gives the same logits.

    pip install torch safetensors && python3 tests/goldens/make_torch_interop_goldens.py
"""
import os
import shutil
import subprocess
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
torch.manual_seed(0)
train = load_file(os.path.join(root, "examples/digits/digits-train.safetensors"))
test = load_file(os.path.join(root, "examples/digits/digits-test.safetensors"))


class TorchCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.out = nn.Linear(128, 10)

    def forward(self, pixels):
        x = pixels.reshape(-1, 1, 8, 8)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.out(x.flatten(1))


m = TorchCnn()
opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
n = train["label"].shape[0]
for epoch in range(2):
    order = torch.randperm(n)
    for start in range(0, n, 64):
        at = order[start:start + 64]
        loss = F.cross_entropy(m(train["pixels"][at]), train["label"][at].long())
        opt.zero_grad()
        loss.backward()
        opt.step()
state = {k: v.detach().contiguous() for k, v in m.state_dict().items()}
save_file(state, os.path.join(here, "torch_cnn.safetensors"))
x = test["pixels"][:32]
with torch.no_grad():
    logits = m.double()(x.double()).float()  # float64 arithmetic from the float32 weights
with open(os.path.join(here, "torch_cnn_logits.txt"), "w") as f:
    f.write("# make_torch_interop_goldens.py (PyTorch %s): logits of the first 32 test digits\n"
            % torch.__version__.split("+")[0])
    for row in logits:
        f.write(" ".join(repr(float(v)) for v in row) + "\n")
print("wrote torch_cnn.safetensors and torch_cnn_logits.txt")

cli = os.path.join(root, "build/default/bin/shapescript")
if os.path.exists(cli):
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(os.path.join(root, "tests/programs/interop/torch_cnn.ss"), work)
        shutil.copy(os.path.join(here, "torch_cnn.safetensors"), work)
        subprocess.run([cli, "run", os.path.join(work, "torch_cnn.ss")], check=True)
        back = TorchCnn()
        back.load_state_dict(load_file(os.path.join(work, "ours.safetensors")), strict=True)
        with torch.no_grad():
            same = torch.equal(back(x), m.float()(x))
        print("PyTorch's load_state_dict(strict=True) takes what shapescript saved:",
              "the same logits" if same else "DIFFERENT LOGITS")
        assert same
else:
    print("no", cli, "to check the way back")
