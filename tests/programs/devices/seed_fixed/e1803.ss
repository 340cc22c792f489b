# E1803's program fixed as its help says: the device work in a function of
# its own, train_step, called from the controller's loop.
devices cpu[0 1 2]

dim D = 4
dim C = 3

model M:
    param w: [D C] = normal(std=0.02)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss(m: M, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

fn train_step(mut m: M, mut opt: AdamW[M], batch: [b] Ex) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn fit(mut m: M, mut opt: AdamW[M], data: Dataset[Ex]):
    for batch in data |> batches(16):
        l = train_step(mut m, mut opt, batch)
        print(f"{l:.4f}")

fn main():
    m = M(seed=0)
    opt = AdamW(m, lr=0.1)
    data: Dataset[Ex] = load("xy.csv")
    fit(mut m, mut opt, data)
    fit(mut m, mut opt, data)
