package cursor
