# The digits CNN written in PyTorch's layouts, so a PyTorch state dict
# loads as it is and what we save loads back into PyTorch
# (tests/goldens/make_torch_interop_goldens.py): nn.Conv2d's weight
# [O I Kh Kw] and nn.Linear's [O I], rearranged at use; x.flatten(1) of an
# NCHW image, (c h w). Names as nn.Module's: conv1.weight, out.bias.
dim S = 8
dim D = S * S
dim S2 = S // 2
dim S4 = S2 // 2
dim C1 = 16
dim C2 = 32
dim F = C2 * S4 * S4    # (c h w), as torch's flatten of [b C2 S4 S4]
dim C = 10

model Conv3[I, O]:
    param weight: [O I 3 3] = glorot
    param bias: [O] = zeros

model Linear[I, O]:
    param weight: [O I] = glorot
    param bias: [O] = zeros

model TorchCnn:
    conv1: Conv3[1, C1]
    conv2: Conv3[C1, C2]
    out: Linear[F, C]

# Channels last inside; the kernel's PyTorch layout turned at use.
fn conv3(m: Conv3[i, o], x: [b h w i]) -> [b h w o]:
    k = rearrange(m.weight, o i kh kw -> kh kw i o)
    return conv(x, k, over=[1 2], padding=1) + m.bias

fn linear(m: Linear[i, o], x: [b i]) -> [b o] = x @ rearrange(m.weight, o i -> i o) + m.bias

fn logits(m: TorchCnn, x: [b D]) -> [b C]:
    image = rearrange(x, b (h w) -> b h w 1, h=S)
    p1 = max_pool(relu(conv3(m.conv1, image)), over=[1 2], window=2, out=[S2 S2])
    p2 = max_pool(relu(conv3(m.conv2, p1)), over=[1 2], window=2, out=[S4 S4])
    return linear(m.out, rearrange(p2, b h w c -> b (c h w)))

# Run by the goldens script from a folder holding torch_cnn.safetensors:
# PyTorch's weights in, ours out, for load_state_dict(strict=True).
fn main():
    m: TorchCnn = load("torch_cnn.safetensors")
    save(m, "ours.safetensors")
