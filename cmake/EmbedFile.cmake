# cmake -DINPUT=file[|file...] -DOUTPUT=file.cpp -DSYMBOL=name -P EmbedFile.cmake
# Writes a C++ source defining `extern const unsigned char SYMBOL[]` (NUL-terminated)
# and `extern const unsigned long SYMBOL_size`, holding the inputs' bytes, one
# after the other.
string(REPLACE "|" ";" inputs "${INPUT}")
set(content "")
foreach(input IN LISTS inputs)
  file(READ ${input} part HEX)
  string(APPEND content "${part}")
endforeach()
string(LENGTH "${content}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by cmake/EmbedFile.cmake: do not edit.\n"
                     "extern const unsigned char ${SYMBOL}[];\nextern const unsigned long ${SYMBOL}_size;\n"
                     "const unsigned char ${SYMBOL}[] = {${bytes}0};\nconst unsigned long ${SYMBOL}_size = ${size};\n")
