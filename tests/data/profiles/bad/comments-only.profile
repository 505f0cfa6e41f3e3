# nothing but comments
; and blank lines

   # indented comment
