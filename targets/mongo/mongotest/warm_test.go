package mongotest

import _ "github.com/FerretDB/FerretDB/ferretdb"
