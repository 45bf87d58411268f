# Sourced by the MySQL benchmarks: starts a MariaDB server of its own (mariadb-server's binaries) on a free port with
# its data under $work, user bench/bench, and TPC-H lineitem from $csv loaded into bench.lineitem (untimed).
# Needs: work, csv, scale set; sets myport, mariadbd_pid (the caller's EXIT trap stops it), rows; defines my().
# (The caller's cleanup must kill "$mariadbd_pid".)
myport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "mysql: MariaDB on 127.0.0.1:$myport, lineitem SF $scale loaded into it (untimed)" >&2
mariadb-install-db --no-defaults --datadir="$work/mdb" --user="$(id -un)" --auth-root-authentication-method=normal \
  --skip-test-db > "$work/install.log" 2>&1
/usr/sbin/mariadbd --no-defaults --datadir="$work/mdb" --user="$(id -un)" --port="$myport" --bind-address=127.0.0.1 \
  --socket="$work/mdb.sock" --skip-log-bin --innodb-buffer-pool-size=2G --innodb-log-file-size=1G \
  --innodb-flush-log-at-trx-commit=2 --local-infile=1 --skip-name-resolve --log-error="$work/mdb.err" &
mariadbd_pid=$!
until mariadb --no-defaults -S "$work/mdb.sock" -uroot -e "SELECT 1" >/dev/null 2>&1; do sleep 0.2; done
my() { mariadb --no-defaults -S "$work/mdb.sock" -uroot --local-infile=1 "$@"; }
my -e "CREATE USER 'bench'@'%' IDENTIFIED BY 'bench'; GRANT ALL ON *.* TO 'bench'@'%'; CREATE DATABASE bench"
my bench -e "CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_partkey BIGINT NOT NULL, l_suppkey BIGINT NOT NULL,
  l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL,
  l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL,
  l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL,
  l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber)) ENGINE = InnoDB;
  LOAD DATA LOCAL INFILE '$csv' INTO TABLE lineitem FIELDS TERMINATED BY '|'; ANALYZE TABLE lineitem" > /dev/null
rows="$(my -N bench -e "SELECT count(*) FROM lineitem")"
