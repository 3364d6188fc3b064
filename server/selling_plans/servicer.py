from __future__ import annotations

import grpc
from paygate.v1 import selling_plans_pb2 as pb
from paygate.v1 import selling_plans_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.runtime import Runtime
from server.selling_plans import pricing, service
from server.selling_plans.service import group_view, plan_view

MAX_PAGE_SIZE = 50


class SellingPlanServicer(selling_plans_pb2_grpc.SellingPlanServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def CreateSellingPlanGroup(self, request: pb.CreateSellingPlanGroupRequest,
                                     context: grpc.aio.ServicerContext) -> pb.CreateSellingPlanGroupResponse:
        async with self._rt.db.transaction() as session:
            group = await service.create_group(session, current_caller(), request)
        return pb.CreateSellingPlanGroupResponse(selling_plan_group=group_view(group))

    async def ListSellingPlanGroups(self, request: pb.ListSellingPlanGroupsRequest,
                                    context: grpc.aio.ServicerContext) -> pb.ListSellingPlanGroupsResponse:
        page = page_of(request, max_size=MAX_PAGE_SIZE)
        async with self._rt.db.read() as session:
            groups, total = await service.list_groups(session, current_caller(), page)
        return pb.ListSellingPlanGroupsResponse(data=[group_view(g) for g in groups], total=total,
                                                offset=page.offset, limit=page.size)

    async def GetSellingPlanGroup(self, request: pb.GetSellingPlanGroupRequest,
                                  context: grpc.aio.ServicerContext) -> pb.GetSellingPlanGroupResponse:
        async with self._rt.db.read() as session:
            group = await service.get_group(session, current_caller(), request.id)
        return pb.GetSellingPlanGroupResponse(selling_plan_group=group_view(group))

    async def UpdateSellingPlanGroup(self, request: pb.UpdateSellingPlanGroupRequest,
                                     context: grpc.aio.ServicerContext) -> pb.UpdateSellingPlanGroupResponse:
        async with self._rt.db.transaction() as session:
            group = await service.update_group(session, current_caller(), request)
        return pb.UpdateSellingPlanGroupResponse(selling_plan_group=group_view(group))

    async def DeleteSellingPlanGroup(self, request: pb.DeleteSellingPlanGroupRequest,
                                     context: grpc.aio.ServicerContext) -> pb.DeleteSellingPlanGroupResponse:
        async with self._rt.db.transaction() as session:
            await service.delete_group(session, current_caller(), request.id)
        return pb.DeleteSellingPlanGroupResponse()

    async def CreateSellingPlan(self, request: pb.CreateSellingPlanRequest,
                                context: grpc.aio.ServicerContext) -> pb.CreateSellingPlanResponse:
        async with self._rt.db.transaction() as session:
            plan = await service.create_plan(session, current_caller(), request)
        return pb.CreateSellingPlanResponse(selling_plan=plan_view(plan))

    async def ListSellingPlans(self, request: pb.ListSellingPlansRequest,
                               context: grpc.aio.ServicerContext) -> pb.ListSellingPlansResponse:
        page = page_of(request, max_size=MAX_PAGE_SIZE)
        async with self._rt.db.read() as session:
            plans, total = await service.list_plans(session, current_caller(), page,
                                                    request.selling_plan_group_id.strip())
        return pb.ListSellingPlansResponse(data=[plan_view(p) for p in plans], total=total, offset=page.offset,
                                           limit=page.size)

    async def GetSellingPlan(self, request: pb.GetSellingPlanRequest,
                             context: grpc.aio.ServicerContext) -> pb.GetSellingPlanResponse:
        async with self._rt.db.read() as session:
            plan = await service.get_plan(session, current_caller(), request.id)
        return pb.GetSellingPlanResponse(selling_plan=plan_view(plan))

    async def UpdateSellingPlan(self, request: pb.UpdateSellingPlanRequest,
                                context: grpc.aio.ServicerContext) -> pb.UpdateSellingPlanResponse:
        async with self._rt.db.transaction() as session:
            plan = await service.update_plan(session, current_caller(), request)
        return pb.UpdateSellingPlanResponse(selling_plan=plan_view(plan))

    async def DeleteSellingPlan(self, request: pb.DeleteSellingPlanRequest,
                                context: grpc.aio.ServicerContext) -> pb.DeleteSellingPlanResponse:
        async with self._rt.db.transaction() as session:
            await service.delete_plan(session, current_caller(), request.id)
        return pb.DeleteSellingPlanResponse()

    async def CalculateSellingPlanPrice(self, request: pb.CalculateSellingPlanPriceRequest,
                                        context: grpc.aio.ServicerContext) -> pb.CalculateSellingPlanPriceResponse:
        async with self._rt.db.read() as session:
            return await pricing.calculate(session, current_caller(), self._rt.catalogue, request)
