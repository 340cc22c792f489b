# A small CNN on the digits (8x8 images, channels last): two 3x3
# convolutions with relu and 2x2 max pooling, then a linear layer to the
# ten classes; AdamW, batch 64, 20 epochs, for seeds 0, 1 and 2. cnn_twin.py
# is the same model in PyTorch.
dim S = 8               # the image's side
dim D = S * S           # a record's pixels: the grouped axis (h w)
dim S2 = S // 2         # after the first pool
dim S4 = S2 // 2        # after the second
dim C1 = 16
dim C2 = 32
dim F = S4 * S4 * C2    # flattened: the axis rearrange's (h w c) makes
dim C = 10

data Digit:
    pixels: [D]
    label: [] Index[C]

# PyTorch's default initialisation: uniform in ±1/sqrt(fan_in).
model Cnn:
    param k1: [3 3 1 C1] = uniform(low=-0.3333333, high=0.3333333)
    param b1: [C1] = uniform(low=-0.3333333, high=0.3333333)
    param k2: [3 3 C1 C2] = uniform(low=-0.0833333, high=0.0833333)
    param b2: [C2] = uniform(low=-0.0833333, high=0.0833333)
    param w: [F C] = uniform(low=-0.0883883, high=0.0883883)
    param b: [C] = uniform(low=-0.0883883, high=0.0883883)

fn logits(m: Cnn, x: [b D]) -> [b C]:
    image = rearrange(x, b (h w) -> b h w 1, h=S)
    h1 = relu(conv(image, m.k1, over=[1 2], padding=1) + m.b1)
    p1 = max_pool(h1, over=[1 2], window=2, out=[S2 S2])
    h2 = relu(conv(p1, m.k2, over=[1 2], padding=1) + m.b2)
    p2 = max_pool(h2, over=[1 2], window=2, out=[S4 S4])
    return rearrange(p2, b h w c -> b (h w c)) @ m.w + m.b

fn loss(m: Cnn, batch: [b] Digit) -> []:
    return cross_entropy(logits(m, batch.pixels), batch.label, over=C)

fn train_step(mut m: Cnn, mut opt: AdamW[Cnn], batch: [b] Digit) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn accuracy(m: Cnn, batch: [b] Digit) -> []:
    return mean(argmax(logits(m, batch.pixels), over=C) == batch.label, over=b)

fn main():
    train: Dataset[Digit] = load("../digits/digits-train.safetensors")
    test: Dataset[Digit] = load("../digits/digits-test.safetensors")
    total = 0.0
    for seed in range(3):
        m = Cnn(seed=seed)
        opt = AdamW(m, lr=3e-3, weight_decay=0.01)
        for epoch in range(20):
            for batch in train |> shuffle(seed=1000 * seed + epoch) |> batches(64):
                l = train_step(mut m, mut opt, batch)
        a = accuracy(m, test |> whole)
        print("seed", seed, "loss", l, "accuracy", a)
        total = total + a
    print("mean accuracy", total / 3)
