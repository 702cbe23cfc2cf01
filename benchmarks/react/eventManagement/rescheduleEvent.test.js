import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './rescheduleEvent';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('moves the event to a new date', async () => {
  fetchMock.patch('/api/events/e5', { status: 200, body: { id: 'e5', date: '2025-06-01' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('new-date'), { target: { value: '2025-06-01' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^reschedule$/i)); });

  expect(fetchMock.called('/api/events/e5')).toBe(true);
  expect(JSON.parse(fetchMock.lastOptions('/api/events/e5').body)).toEqual({ date: '2025-06-01' });
  expect(screen.getByText('Event moved to 2025-06-01')).toBeInTheDocument();
}, 10000);

test('shows an error when the event cannot be rescheduled', async () => {
  fetchMock.patch('/api/events/e5', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('new-date'), { target: { value: '2025-06-01' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^reschedule$/i)); });

  expect(fetchMock.called('/api/events/e5')).toBe(true);
  expect(screen.getByText(/could not reschedule event/i)).toBeInTheDocument();
}, 10000);
