# A device function changes a model's fields, a sub-model's too, through `mut`;
# a copy taken before keeps its values: models are values.
dim D = 3
model Inner:
    param v: [D] = ones
model M:
    param w: [D] = zeros
    enc: Inner
fn shrink(mut m: M):
    m.w = m.w * 0.5 + 1.0
    m.enc.v = m.enc.v * 3.0
fn main():
    m = M(seed=0)
    keep = m
    shrink(mut m)
    shrink(mut m)
    print(m.w, m.enc.v, keep.w)
