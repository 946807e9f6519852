# Turns a data file into a C source that defines `const unsigned char SYMBOL[]`
# (NUL-terminated, so text files can be used as C strings) and `SYMBOL_len`.
# Usage: cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN}; do not edit */\n#include <stddef.h>\nconst unsigned char ${SYMBOL}[] = {\n${body}0x00};\nconst size_t ${SYMBOL}_len = ${len};\n")
