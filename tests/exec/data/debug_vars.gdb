break race.cu:9
run
info args
info locals
print tile[3] + in[5]
whatis tile
kill
