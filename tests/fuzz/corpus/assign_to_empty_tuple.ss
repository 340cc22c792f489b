fn main():
 .0
 ()=04
f