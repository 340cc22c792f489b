# The seed's E1802 program with one device: it checks clean.
devices cuda[0]

dim D = 4

data Ex:
    x: [D]

fn flat(batch: [b] Ex) -> [b*D]:
    return rearrange(batch.x, b d -> (b d))
