"""The flags that make tree open files besides listing the directories it is given, declared once
for its table (commands/files.py) and the path roles (paths/roles.py). Data only, importing
nothing: the path roles are loaded by a file tool's check, which must not load the command
tables (tests/test_speed_hookpath.py)."""

# * TREE_LISTS: the operands are files whose lines are printed as the tree.
# * TREE_RULES: each listed directory's rule file is read (--info: .info, whose comments are
#   printed; --gitignore: .gitignore, whose patterns hide the names they match), and a file
#   operand is opened as one (tree 2.1.0 new_infofile/new_ignorefile: `fopen(path)` when the
#   path is a regular file). strace: `tree --info ~/.aws/credentials` and `tree --gitignore
#   ~/.aws/credentials` open the credentials (fuzz campaign findings); a .gitignore linked to a
#   secret hides every listed name one of its lines matches (tests/test_tables_polish.py).
# Their values' files (--gitfile, --infofile, --hintro, --houtro) are Takes.PATH. -X and -J are
# output formats only: strace shows no file opened for them.
TREE_LISTS = ("--fromfile", "--fromtabfile")
TREE_RULES = ("--info", "--gitignore")
