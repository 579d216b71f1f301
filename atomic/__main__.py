from atomic.cli import main

raise SystemExit(main())
