"""The review queue in a browser (``ragmon review serve``): the queue, a case, label, promote, agreement.

Server-rendered pages (Starlette routes, Jinja2 templates, one stylesheet; no script, no front-end
build) over the same review store as the CLI, served by ``monitor.http.BoundedServer``. ``app`` holds
the routes, ``views`` what the pages show, ``security`` the token login, sessions and CSRF, ``serve``
the command.
"""
