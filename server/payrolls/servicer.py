from __future__ import annotations

import grpc
from paygate.v1 import payrolls_pb2 as pb
from paygate.v1 import payrolls_pb2_grpc

from server.context import current_caller
from server.errors import invalid
from server.paging import page_of
from server.payrolls import service
from server.runtime import Runtime

MAX_PAGE_SIZE = 50  # the SDK's


class PayrollServicer(payrolls_pb2_grpc.PayrollServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def _shown(self, payroll_id: str) -> service.Shown:
        async with self._rt.db.read() as session:
            row = await service.get(session, current_caller(), payroll_id)
            return (await service.show(session, self._rt, [row]))[0]

    async def CreateDirectPayroll(self, request: pb.CreateDirectPayrollRequest,
                                  context: grpc.aio.ServicerContext) -> pb.CreateDirectPayrollResponse:
        shown = await self._shown(await service.create(self._rt, current_caller(), request))
        return pb.CreateDirectPayrollResponse(payroll=shown.payroll, items=shown.items)

    async def ConfirmPayroll(self, request: pb.ConfirmPayrollRequest,
                             context: grpc.aio.ServicerContext) -> pb.ConfirmPayrollResponse:
        shown = await self._shown(await service.confirm(self._rt, current_caller(), request.id))
        return pb.ConfirmPayrollResponse(payroll=shown.payroll, items=shown.items)

    async def GetPayroll(self, request: pb.GetPayrollRequest,
                         context: grpc.aio.ServicerContext) -> pb.GetPayrollResponse:
        shown = await self._shown(request.id)
        return pb.GetPayrollResponse(payroll=shown.payroll, items=shown.items)

    async def ListPayrolls(self, request: pb.ListPayrollsRequest,
                           context: grpc.aio.ServicerContext) -> pb.ListPayrollsResponse:
        page = page_of(request, max_size=MAX_PAGE_SIZE)
        status = request.status.strip()
        if status and status not in service.STATUSES:
            raise invalid("status", f"must be one of {', '.join(service.STATUSES)}")
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page,
                                                  external_id=request.external_id.strip(),
                                                  payroll_id=request.payroll_id.strip(), status=status)
            shown = await service.show(session, self._rt, rows)
        return pb.ListPayrollsResponse(payrolls=[s.payroll for s in shown], total=total)

    async def ListPayrollItems(self, request: pb.ListPayrollItemsRequest,
                               context: grpc.aio.ServicerContext) -> pb.ListPayrollItemsResponse:
        page = page_of(request, max_size=MAX_PAGE_SIZE)
        async with self._rt.db.read() as session:
            found, total = await service.list_items(
                session, current_caller(), page, payroll_id=request.payroll_id.strip(),
                external_id=request.external_id.strip(), item_external_id=request.item_external_id.strip(),
                employee_name=request.employee_name.strip())
            items = await service.show_items(session, self._rt, found)
        return pb.ListPayrollItemsResponse(payroll_items=items, total=total)
