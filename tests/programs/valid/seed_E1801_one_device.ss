# The seed's E1801 program with one device: it checks clean.
devices cuda[0]

dim D = 4

data Ex:
    x: [D]

fn largest(batch: [b] Ex) -> [D]:
    return max(batch.x, over=b)
