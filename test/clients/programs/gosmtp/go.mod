module mailroom.test/gosmtp

go 1.19
