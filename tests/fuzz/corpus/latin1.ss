dim D = 4
# café
