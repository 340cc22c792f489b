# A stack of pre-norm residual blocks written in PyTorch's layouts, so a
# state dict of nn.ModuleList layers loads as it is (`blocks.0.up.weight`)
# and what we save loads back into PyTorch
# (tests/goldens/make_torch_interop_goldens.py): nn.Linear's weight [O I],
# nn.LayerNorm's weight and bias.
dim D = 64
dim E = 32
dim F = 64
dim C = 10
dim L = 3

model Linear[I, O]:
    param weight: [O I] = glorot
    param bias: [O] = zeros

model LayerNorm[K]:
    param weight: [K] = ones
    param bias: [K] = zeros

model Block:
    norm: LayerNorm[E]
    up: Linear[E, F]
    down: Linear[F, E]

model TorchStack:
    inp: Linear[D, E]
    blocks: [L] Block
    out: Linear[E, C]

fn linear(m: Linear[i, o], x: [b i]) -> [b o] = x @ rearrange(m.weight, o i -> i o) + m.bias

fn normed(m: LayerNorm[k], x: [b k]) -> [b k] = layer_norm(x, over=-1) * m.weight + m.bias

fn logits(m: TorchStack, x: [b D]) -> [b C]:
    h = linear(m.inp, x)
    for k in m.blocks:
        h = h + linear(k.down, relu(linear(k.up, normed(k.norm, h))))
    return linear(m.out, h)

# Run by the goldens script from a folder holding torch_stack.safetensors:
# PyTorch's weights in, ours out, for load_state_dict(strict=True).
fn main():
    m: TorchStack = load("torch_stack.safetensors")
    save(m, "ours.safetensors")
