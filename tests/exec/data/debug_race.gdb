catch finding
run
info line
last-write *((@shared int*)&tile + 1)
last-write *((@shared int*)&tile + 32)
kill
