# The seed's E1803 program with one device: it checks clean.
devices cuda[0]

dim D = 4
dim C = 3

model M:
    param w: [D C] = normal(std=0.02)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss(m: M, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

fn fit(mut m: M, mut opt: AdamW[M], data: Dataset[Ex]):
    for batch in data |> batches(64):
        l, g = value_and_grad(loss, m, batch)
        update(mut m, mut opt, g)
